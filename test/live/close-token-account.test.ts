import { describe, expect, test } from "bun:test";
import { createCloseAccountInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../src/market/solana-rpc.ts";
import {
  associatedTokenAddress,
  buildCloseAccountTransaction,
  closeAccountRefusal,
} from "../../src/trading/live/close-token-account.ts";

// The transaction that gets a closed position's token account rent back is built by the service:
// exactly one CloseAccount of the token program, the account's rent to the wallet, the wallet
// its only signer and fee payer (docs/decisions.md "Token account rent, live"). Checked against
// the spl-token library's own instruction.

const wallet = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const BLOCKHASH = "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k";

describe("the close-account transaction", () => {
  for (const program of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
    test(`one CloseAccount of ${program === TOKEN_PROGRAM_ID ? "SPL Token" : "Token-2022"}: [account, wallet, wallet]`, () => {
      const programId = new PublicKey(program);
      const account = associatedTokenAddress(wallet.toBase58(), mint.toBase58(), program);
      expect(account).toBe(getAssociatedTokenAddressSync(mint, wallet, false, programId).toBase58());
      const target = { wallet: wallet.toBase58(), account, tokenProgram: program };
      const tx = buildCloseAccountTransaction(target, BLOCKHASH);

      const msg = tx.message;
      const keys = msg.staticAccountKeys.map((k) => k.toBase58());
      expect(msg.header.numRequiredSignatures).toBe(1);
      expect(keys[0]).toBe(wallet.toBase58()); // fee payer
      expect(msg.addressTableLookups).toHaveLength(0);
      expect(msg.compiledInstructions).toHaveLength(1);
      const ix = msg.compiledInstructions[0]!;
      expect(keys[ix.programIdIndex]).toBe(program);
      expect(ix.accountKeyIndexes.map((i) => keys[i])).toEqual([account, wallet.toBase58(), wallet.toBase58()]);
      // The library's CloseAccount, byte for byte.
      const lib = createCloseAccountInstruction(new PublicKey(account), wallet, wallet, [], programId);
      expect([...ix.data]).toEqual([...lib.data]);
      expect(lib.keys.map((k) => k.pubkey.toBase58())).toEqual([account, wallet.toBase58(), wallet.toBase58()]);
      expect(closeAccountRefusal(tx, target)).toBeNull();
    });
  }

  test("anything else is refused before signing", () => {
    const account = associatedTokenAddress(wallet.toBase58(), mint.toBase58(), TOKEN_PROGRAM_ID);
    const target = { wallet: wallet.toBase58(), account, tokenProgram: TOKEN_PROGRAM_ID };
    const close = createCloseAccountInstruction(new PublicKey(account), wallet, wallet);
    const build = (instructions: TransactionInstruction[], payer = wallet) =>
      new VersionedTransaction(
        new TransactionMessage({ payerKey: payer, recentBlockhash: BLOCKHASH, instructions }).compileToV0Message(),
      );
    const thief = Keypair.generate().publicKey;
    // A second instruction.
    const extra = SystemProgram.transfer({ fromPubkey: wallet, toPubkey: thief, lamports: 1 });
    expect(closeAccountRefusal(build([close, extra]), target)).toContain("2 instructions");
    // The rent to someone else.
    const elsewhere = createCloseAccountInstruction(new PublicKey(account), thief, wallet);
    expect(closeAccountRefusal(build([elsewhere]), target)).toContain("accounts");
    // The wrong token program for the account.
    const other = createCloseAccountInstruction(
      new PublicKey(account),
      wallet,
      wallet,
      [],
      new PublicKey(TOKEN_2022_PROGRAM_ID),
    );
    expect(closeAccountRefusal(build([other]), target)).toContain("not allowed");
    // Another fee payer.
    const payer = Keypair.generate().publicKey;
    expect(closeAccountRefusal(build([close], payer), target)).toContain("fee payer");
    // Not CloseAccount (a transfer of the token program has other data).
    const notClose = new TransactionInstruction({ ...close, data: Buffer.from([3, 1, 0, 0, 0, 0, 0, 0, 0]) });
    expect(closeAccountRefusal(build([notClose]), target)).toContain("not CloseAccount");
  });
});
