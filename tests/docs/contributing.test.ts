import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { describe, expect, it } from "vitest";
import { spans, unknownNames } from "../support/doc-names";

// CONTRIBUTING.md's recipes name real files and identifiers; a rename that leaves the page behind fails here.

describe("CONTRIBUTING.md", () => {
  const page = readFileSync(join(repositoryRoot, "CONTRIBUTING.md"), "utf8");

  it("names only files, identifiers and scripts that exist", () => {
    expect(spans(page).length).toBeGreaterThan(100);
    expect(unknownNames(page)).toEqual([]);
  });

  it("catches a made-up name of each kind", () => {
    const madeUp = "`subgraphs/pos/src/modules/bills/bill.jobs.ts` `tips.machine.ts` `billTipsMachine` `npm run tips`";
    expect(unknownNames(madeUp)).toEqual([
      "subgraphs/pos/src/modules/bills/bill.jobs.ts",
      "tips.machine.ts",
      "billTipsMachine",
      "npm run tips",
    ]);
  });

  it("names every module file by one of the roles of its table", () => {
    const roles = modulesRoles(page);
    expect(roles.test("subgraphs/pos/src/modules/bills/bill.service.ts")).toBe(true);
    expect(roles.test("subgraphs/pos/src/modules/bills/bill.helpers.ts")).toBe(false);
    const files = moduleFiles();
    expect(files.filter((file) => !roles.test(file) && !unnamed.includes(file))).toEqual([]);
    // A part renamed by its role, or gone, leaves the list.
    expect(unnamed.filter((file) => roles.test(file) || !files.includes(file))).toEqual([]);
  });

  it("keeps rules out of the `.inputs.ts` files: zod schemas, their types and the field walkers that run them", () => {
    const inputs = moduleFiles().filter((file) => file.endsWith(".inputs.ts"));
    expect(inputs.length).toBeGreaterThan(15);
    expect(inputs.flatMap((file) => functionsOf(file).filter((name) => !inputParsers.includes(name)))).toEqual([]);
    expect(functionsOf("subgraphs/portal/src/modules/users/user.service.ts")).toContain("usesPassword");
  });

  it("is linked from the README", () => {
    expect(readFileSync(join(repositoryRoot, "README.md"), "utf8").includes("(CONTRIBUTING.md)")).toBe(true);
  });
});

/** The first cell of each row of "A module, whole" (`<module>.service.ts`, `workflows/<verb-noun>.ts`) as one pattern. */
function modulesRoles(page: string): RegExp {
  const section = page.slice(page.indexOf("## A module, whole"), page.indexOf("## Recipes"));
  const cells = [...section.matchAll(/^\| ([^|]+) \|/gm)].map((row) => row[1]!);
  const patterns = cells.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((span) => span[1]!));
  const regex = patterns.map((pattern) =>
    pattern
      .split(/<[^>]+>|\*/)
      .map((part) => part.replace(/[.]/g, "\\."))
      .join("[^/]+"),
  );
  return new RegExp(`/(${regex.join("|")})$`);
}

function moduleFiles(): string[] {
  const files: string[] = [];
  for (const subgraph of ["payments", "portal", "pos"]) {
    const modules = join("subgraphs", subgraph, "src", "modules");
    for (const entry of readdirSync(join(repositoryRoot, modules), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name).slice(repositoryRoot.length + 1);
      if (entry.isFile() && path.split("/").length > 5) files.push(path);
    }
  }
  return files;
}

/** The functions a file exports (declared, or an arrow assigned to a const), by name. */
function functionsOf(file: string): string[] {
  const source = readFileSync(join(repositoryRoot, file), "utf8");
  const declared = /^export (?:async )?function (\w+)|^export const (\w+) = (?:async )?\(/gm;
  return [...source.matchAll(declared)].map((match) => (match[1] ?? match[2])!);
}

/**
 * What an `.inputs.ts` may export besides schemas: the walkers that run each field's zod schema in the spec's order
 * (docs/decisions/foundation.md, "Module faces (issue 37)") and a schema builder.
 */
const inputParsers = ["parseCreateInput", "parseAmount", "parseSyncInput", "optionalText"];

/** Module files not yet named by a role (issue 37): mostly a service's parts, named after what they do. */
const unnamed = [
  "subgraphs/payments/src/modules/outbox/outbox-publisher.ts",
  "subgraphs/payments/src/modules/partners/api-key-expiry.ts",
  "subgraphs/payments/src/modules/partners/api-key-issuance.ts",
  "subgraphs/payments/src/modules/partners/partner-audit.ts",
  "subgraphs/payments/src/modules/partners/partner-webhooks.ts",
  "subgraphs/payments/src/modules/partners/store-resolver.ts",
  "subgraphs/payments/src/modules/partners/sync-lease.ts",
  "subgraphs/payments/src/modules/payment-intents/payment-intent-capture.ts",
  "subgraphs/payments/src/modules/payment-intents/payment-intent-expiry.ts",
  "subgraphs/payments/src/modules/payment-intents/payment-intent-reads.ts",
  "subgraphs/payments/src/modules/payment-intents/payment-intent.transition.ts",
  "subgraphs/payments/src/modules/payment-intents/payment-token.ts",
  "subgraphs/payments/src/modules/provider-events/payment-poller.ts",
  "subgraphs/payments/src/modules/provider-events/provider-outcome.ts",
  "subgraphs/payments/src/modules/providers/adapter-options.ts",
  "subgraphs/payments/src/modules/providers/paypay/opa-auth.ts",
  "subgraphs/payments/src/modules/providers/paypay/paypay-prompts.ts",
  "subgraphs/payments/src/modules/providers/provider-credentials.ts",
  "subgraphs/payments/src/modules/providers/provider-directory.ts",
  "subgraphs/payments/src/modules/providers/provider-registry.ts",
  "subgraphs/payments/src/modules/providers/provider-settings.ts",
  "subgraphs/payments/src/modules/providers/provider.ts",
  "subgraphs/payments/src/modules/providers/sandbox/sandbox-notifications.ts",
  "subgraphs/payments/src/modules/providers/sandbox/sandbox-statuses.ts",
  "subgraphs/payments/src/modules/reconciliation/provider-differences.ts",
  "subgraphs/payments/src/modules/refunds/refund-recording.ts",
  "subgraphs/payments/src/modules/webhooks/webhook-dispatcher.ts",
  "subgraphs/payments/src/modules/webhooks/webhook-event.ts",
  "subgraphs/payments/src/modules/webhooks/webhook-metrics.ts",
  "subgraphs/payments/src/modules/webhooks/webhook-recovery.ts",
  "subgraphs/payments/src/modules/webhooks/webhook-sender.ts",
  "subgraphs/payments/src/modules/webhooks/webhook-url.ts",
  "subgraphs/portal/src/modules/audit/audit-chain.ts",
  "subgraphs/portal/src/modules/auth/login-secrets.ts",
  "subgraphs/portal/src/modules/auth/staff-approval.ts",
  "subgraphs/portal/src/modules/tenants/scope.ts",
  "subgraphs/portal/src/modules/tenants/store-at-work.ts",
  "subgraphs/portal/src/modules/users/credentials.ts",
  "subgraphs/portal/src/modules/users/login-id.ts",
  "subgraphs/portal/src/modules/users/user-access.ts",
  "subgraphs/portal/src/modules/users/user-audit.ts",
  "subgraphs/portal/src/modules/users/user-lockouts.ts",
  "subgraphs/portal/src/modules/users/user-mfa.ts",
  "subgraphs/portal/src/modules/users/user-view.ts",
  "subgraphs/pos/src/modules/accounting-exports/accounting-export-settings.ts",
  "subgraphs/pos/src/modules/accounting-exports/export-deliveries.ts",
  "subgraphs/pos/src/modules/accounting-exports/settlement-file.ts",
  "subgraphs/pos/src/modules/bills/bill-access.ts",
  "subgraphs/pos/src/modules/bills/bill-changes.ts",
  "subgraphs/pos/src/modules/bills/bill-payments.ts",
  "subgraphs/pos/src/modules/customers/customer-search.ts",
  "subgraphs/pos/src/modules/customers/customer-totals.ts",
  "subgraphs/pos/src/modules/orders/order-access.ts",
  "subgraphs/pos/src/modules/orders/order-billing.ts",
  "subgraphs/pos/src/modules/orders/order-changes.ts",
  "subgraphs/pos/src/modules/payments/payment-audit.ts",
  "subgraphs/pos/src/modules/payments/payment-follow-up.ts",
  "subgraphs/pos/src/modules/payments/payment-reads.ts",
  "subgraphs/pos/src/modules/payments/payment-refunds.ts",
  "subgraphs/pos/src/modules/receipts/receipt.document.ts",
  "subgraphs/pos/src/modules/receipts/receipt.text.ts",
  "subgraphs/pos/src/modules/refunds/refund-sending.ts",
  "subgraphs/pos/src/modules/settlements/card-files.ts",
  "subgraphs/pos/src/modules/settlements/settlement-access.ts",
  "subgraphs/pos/src/modules/settlements/settlement-closing.ts",
  "subgraphs/pos/src/modules/settlements/settlement-days.ts",
  "subgraphs/pos/src/modules/settlements/store-exchange.ts",
  "subgraphs/pos/src/modules/stores/customer-access.ts",
  "subgraphs/pos/src/modules/stores/portal-lookups.ts",
  "subgraphs/pos/src/modules/stores/store-scope.ts",
];
