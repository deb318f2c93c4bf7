import {
  AppError,
  type Caller,
  invalidField,
  notFound,
  parseInput,
  requireAccountingExportAdmin,
  type SecretBox,
} from "@pos-cloud/common";
import ssh2 from "ssh2";
import { accountingExportSettings } from "./accounting-export.inputs";
import { presentSettings } from "./accounting-export.presenter";
import type { AccountingExportRepository } from "./accounting-export.repository";

const noMasterKey = () => new AppError("service_unavailable", "this process has no master key to seal credentials");

/** A merchant's export settings: read, and set with the password or key sealed and the change on the audit record. */
export function exportSettings(exports: AccountingExportRepository, box: SecretBox | undefined, clock: () => Date) {
  return {
    async settings(caller: Caller, merchantId: number) {
      requireAccountingExportAdmin(caller, merchantId);
      const row = await exports.findSettings(merchantId);
      if (!row) throw notFound("accounting export");
      return presentSettings(row);
    },

    /** Sets a merchant's export; the password or key is sealed, and the change is on the audit record. */
    async configureExport(caller: Caller, input: unknown) {
      const data = parseInput(accountingExportSettings, input);
      requireAccountingExportAdmin(caller, data.merchant_id);
      if (data.private_key !== undefined && ssh2.utils.parseKey(data.private_key) instanceof Error)
        throw invalidField("private_key", "format", "private_key must be an unencrypted OpenSSH or PEM private key");
      if (!box) throw noMasterKey();
      const { password, private_key, host_key_fingerprint = null, ...target } = data;
      const by = `${caller.type}:${caller.id ?? ""}`;
      const auth_method = password === undefined ? "private_key" : "password";
      // Settings without a fingerprint trust the next connection's key again, whatever was pinned before.
      const saved = await exports.saveSettings(
        {
          ...target,
          auth_method,
          secret: box.seal((password ?? private_key)!),
          host_key_fingerprint,
          host_key_learned_at: null,
          updated_by: by,
        },
        {
          event: "accounting_export.configured",
          actor: caller,
          target: { type: "accounting_export", id: String(data.merchant_id) },
          place: { merchant_id: data.merchant_id },
          metadata: {
            format: data.format,
            host: data.host,
            port: data.port,
            path: data.path,
            auth_method,
            host_key_fingerprint,
          },
        },
        clock(),
      );
      return presentSettings(saved);
    },
  };
}
