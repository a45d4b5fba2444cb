import { PreferencesSection } from "./settings-preferences.tsx";
import { TelegramSection } from "./settings-telegram.tsx";
import { WebhooksSection } from "./settings-webhooks.tsx";

// Notifications (`#/notifications`): where messages go. Webhooks first (a disabled one is the thing to
// act on), then Telegram and the preferences that apply to it.

export function SettingsPage() {
  return (
    <div class="stack settings">
      <WebhooksSection />
      <TelegramSection />
      <PreferencesSection />
    </div>
  );
}
