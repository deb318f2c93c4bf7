import type { SandboxTransaction } from "./transactions";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** What a phone shows when it opens the QR content: the amount and, while payable, a Pay button. */
export function payPage(
  transaction: Pick<SandboxTransaction, "amount" | "currency" | "status" | "decline_code" | "reference">,
): string {
  const amount = `${transaction.amount.toLocaleString("en-US")} ${escapeHtml(transaction.currency)}`;
  const action =
    transaction.status === "pending"
      ? `<form method="post"><button type="submit">Pay ${amount}</button></form>`
      : `<p>Status: <strong>${escapeHtml(transaction.status)}</strong>${transaction.decline_code ? ` (${escapeHtml(transaction.decline_code)})` : ""}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox QR payment</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:3rem auto;text-align:center}button{font-size:1.25rem;padding:.75rem 2rem}</style>
</head><body>
<h1>Sandbox QR payment</h1>
<p>${amount}</p>
<p><small>${escapeHtml(transaction.reference)}</small></p>
${action}
${transaction.status === "processing" ? '<p><a href="">Refresh</a></p>' : ""}
</body></html>
`;
}
