import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import paypaySdk from "@paypayopa/paypayopa-sdk-node";
import { contractSandbox } from "@pos-cloud/test-support/sandbox-provider";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { opaAuthorization } from "./opa-auth.client";

/**
 * The outside check of PayPay's signing: neither side is ours alone. PayPay's official Node SDK signs requests that
 * the sandbox's PayPay verifier must accept, and the SDK's own signing function must produce exactly the header the
 * adapter's signer produces for the same request, nonce and time.
 */
type SdkResult = { STATUS: number; BODY?: any; ERROR?: string };
type HttpsOptions = { hostname: string; port: number; path: string; method: string; headers: Record<string, unknown> };

/** The SDK speaks HTTPS only; the sandbox listens on HTTP. Only the transport is swapped: headers are the SDK's. */
const plainHttp = {
  httpsCall(options: HttpsOptions & { apiKey?: string }, payload: unknown, callback: (result: SdkResult) => void) {
    const { apiKey: _apiKey, ...sent } = options;
    const req = httpRequest(sent as never, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => callback({ STATUS: res.statusCode ?? 0, BODY: body ? JSON.parse(body) : null }));
    });
    req.on("error", (error) => callback({ STATUS: 0, ERROR: error.message }));
    if (options.method === "POST") req.write(JSON.stringify(payload));
    req.end();
  },
};

function sdkFor(baseUrl: string, credentials: { merchant_id: string; api_key: string; api_secret: string }) {
  const sdk = new paypaySdk.PayPayRestSDK();
  const { hostname, port } = new URL(baseUrl);
  sdk.configure({
    clientId: credentials.api_key,
    clientSecret: credentials.api_secret,
    merchantId: credentials.merchant_id,
    conf: new paypaySdk.Conf({ hostName: hostname, portNumber: Number(port) }),
  });
  sdk.setHttpsClient(plainHttp as never);
  return sdk as unknown as {
    qrCodeCreate(payload: object): Promise<SdkResult>;
    getCodePaymentDetails(params: string[]): Promise<SdkResult>;
    paymentCancel(params: string[]): Promise<SdkResult>;
    paymentRefund(payload: object): Promise<SdkResult>;
    getRefundDetails(params: string[]): Promise<SdkResult>;
    createAuthHeader(method: string, path: string, body: unknown): string;
  };
}

describe("PayPay's official SDK against the sandbox's PayPay protocol", () => {
  let outside: Awaited<ReturnType<typeof contractSandbox>>;
  beforeAll(async () => {
    outside = await contractSandbox();
  });
  afterAll(() => outside.close());

  const code = (merchantPaymentId: string, amount: number) => ({
    merchantPaymentId,
    amount: { amount, currency: "JPY" },
    codeType: "ORDER_QR",
    orderDescription: "outside check",
    isAuthorization: false,
  });

  it("creates, reads, refunds and cancels with requests the SDK signed", async () => {
    const sdk = sdkFor(outside.sandbox.baseUrl, outside.credentials);
    const merchantPaymentId = `mp_${randomUUID().replaceAll("-", "")}`;
    const created = await sdk.qrCodeCreate(code(merchantPaymentId, 1500));
    expect(created).toMatchObject({
      STATUS: 201,
      BODY: { resultInfo: { code: "SUCCESS" }, data: { merchantPaymentId } },
    });
    expect((await sdk.qrCodeCreate(code(merchantPaymentId, 1500))).BODY.resultInfo.code).toBe(
      "DUPLICATE_DYNAMIC_QR_REQUEST",
    );
    await outside.pay(created.BODY.data.url);
    const details = await sdk.getCodePaymentDetails([merchantPaymentId]);
    expect(details).toMatchObject({ STATUS: 200, BODY: { data: { status: "COMPLETED", amount: { amount: 1500 } } } });

    const merchantRefundId = `mr_${randomUUID().replaceAll("-", "")}`;
    const refund = {
      merchantRefundId,
      paymentId: details.BODY.data.paymentId,
      amount: { amount: 500, currency: "JPY" },
    };
    expect(await sdk.paymentRefund(refund)).toMatchObject({ STATUS: 201, BODY: { resultInfo: { code: "SUCCESS" } } });
    expect(await sdk.getRefundDetails([merchantRefundId])).toMatchObject({
      STATUS: 200,
      BODY: { data: { status: "REFUNDED", amount: { amount: 500 } } },
    });

    const unpaid = `mp_${randomUUID().replaceAll("-", "")}`;
    await sdk.qrCodeCreate(code(unpaid, 800));
    expect(await sdk.paymentCancel([unpaid])).toMatchObject({
      STATUS: 202,
      BODY: { resultInfo: { code: "REQUEST_ACCEPTED" } },
    });
    expect((await sdk.getCodePaymentDetails([unpaid])).BODY.data.status).toBe("CANCELED");
  });

  it("refuses what the SDK signed with another secret, or for a merchant the key does not act for", async () => {
    const wrongSecret = sdkFor(outside.sandbox.baseUrl, { ...outside.credentials, api_secret: "not-the-secret" });
    expect(await wrongSecret.qrCodeCreate(code(`mp_${randomUUID().slice(0, 8)}`, 100))).toMatchObject({
      STATUS: 401,
      BODY: { resultInfo: { code: "UNAUTHORIZED" } },
    });
    const otherMerchant = sdkFor(outside.sandbox.baseUrl, { ...outside.credentials, merchant_id: "someone-else" });
    expect(await otherMerchant.getCodePaymentDetails(["mp_any"])).toMatchObject({
      STATUS: 401,
      BODY: { resultInfo: { code: "OP_OUT_OF_SCOPE" } },
    });
  });
});

describe("the adapter's signer against the SDK's", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const credentials = { api_key: "key-outside-check", api_secret: "secret-outside-check", merchant_id: "m-1" };
  const cases = [
    [
      "POST",
      "/v2/codes",
      { merchantPaymentId: "mp-1", amount: { amount: 1200, currency: "JPY" }, codeType: "ORDER_QR" },
    ],
    [
      "POST",
      "/v2/refunds",
      { merchantRefundId: "mr-1", paymentId: "p-1", amount: { amount: 5, currency: "JPY" }, requestedAt: 1 },
    ],
    ["GET", "/v2/codes/payments/mp-1", null],
    ["DELETE", "/v2/payments/mp-1", null],
  ] as const;

  it.each(cases)("%s %s: the same header for the same request, nonce and time", (method, path, body) => {
    const at = 1_795_000_000_123;
    vi.spyOn(Date, "now").mockReturnValue(at);
    const sdk = sdkFor("http://127.0.0.1:9", credentials);
    const header = sdk.createAuthHeader(method, path, body);
    const [, , , nonce, epoch] = header.split(":");
    expect(Number(epoch)).toBe(Math.floor(at / 1000));
    const raw = body === null ? "" : JSON.stringify(body);
    expect(opaAuthorization(credentials, { method, path, body: raw }, { nonce: nonce!, epoch: Number(epoch) })).toBe(
      header,
    );
    expect(
      opaAuthorization(
        { ...credentials, api_secret: "other" },
        { method, path, body: raw },
        { nonce: nonce!, epoch: Number(epoch) },
      ),
    ).not.toBe(header);
  });
});
