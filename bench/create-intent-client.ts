// The load generator for `create-intent`, in a process of its own: it signs every request (HMAC scheme 1) with a
// fresh merchant_ref_id and Idempotency-Key, which autocannon's command line cannot do.
import { randomUUID } from "node:crypto";
import { signatureV1 } from "@pos-cloud/rest-compat";
import autocannon from "autocannon";

const { baseUrl, partner, storeCode, connections, seconds, rate } = JSON.parse(process.argv[2]!);
const path = "/v1/payment_intents";

const result = await autocannon({
  url: baseUrl,
  connections,
  duration: seconds,
  ...(rate ? { overallRate: rate } : {}),
  requests: [
    {
      method: "POST",
      path,
      setupRequest: (request) => {
        const reference = randomUUID();
        const body = JSON.stringify({
          amount: 1500,
          currency: "JPY",
          payment_method_types: ["qr_mpm"],
          merchant_ref_id: reference,
          merchant_store_id: storeCode,
        });
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = signatureV1(partner.secret, "POST", path, timestamp, Buffer.from(body));
        return {
          ...request,
          body,
          headers: {
            "content-type": "application/json",
            "idempotency-key": reference,
            authorization: `HMAC-SHA256 ${partner.client_id}:${timestamp}:${signature}`,
          },
        };
      },
    },
  ],
});
process.stdout.write(JSON.stringify(result));
