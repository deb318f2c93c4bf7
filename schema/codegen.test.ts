import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "@graphql-codegen/cli";
import { afterAll, describe, expect, it } from "vitest";
import { codegenConfig, codegenFailure } from "./codegen";

const scratch = mkdtempSync(join(tmpdir(), "codegen-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The codegen of one operations module, over a single document instead of the folder's. */
async function generateWith(module: "gateway" | "payments", document: string): Promise<string> {
  const file = join(scratch, `${module}-${Math.random().toString(36).slice(2)}.graphql`);
  writeFileSync(file, document);
  const target = `rest-compat/src/operations/${module}.generated.ts`;
  const output = codegenConfig.generates[target] as object;
  const [generated] = await generate(
    { ...codegenConfig, generates: { [target]: { ...output, documents: [file] } } },
    false,
  );
  return (generated as { content: string }).content;
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "",
    (error: unknown) => codegenFailure(error),
  );

describe("REST operation documents are validated against the schema that runs them", () => {
  it("types a valid operation: its document, result and variables", async () => {
    const content = await generateWith("gateway", "query OneStore($id: Int!) { store(id: $id) { id name } }");
    expect(content).toContain("export const OneStoreDocument");
    expect(content).toContain("export type OneStoreQueryVariables = Exact<{\n  id: number;\n}>;");
  });

  it("refuses a field the public API does not have", async () => {
    const failure = await failureOf(generateWith("gateway", "query OneStore { store(id: 1) { id no_such_field } }"));
    expect(failure).toMatch(/Cannot query field "no_such_field" on type "Store"/);
  });

  it("refuses an @inaccessible operation through the gateway, and types it on the payments subgraph", async () => {
    const operation = `query ByToken($id: String!, $payment_token: String!) {
      paymentIntentByToken(id: $id, payment_token: $payment_token) { id status }
    }`;
    expect(await failureOf(generateWith("gateway", operation))).toMatch(
      /Cannot query field "paymentIntentByToken" on type "Query"/,
    );
    expect(await generateWith("payments", operation)).toContain("export const ByTokenDocument");
  });
});
