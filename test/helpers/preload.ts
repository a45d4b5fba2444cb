// Loaded before every test file (bunfig.toml). Tests never read the developer's .env or reach the
// network: every external URL a test needs points at a fake server on 127.0.0.1.
process.env.TZ = "UTC";
