import {
  AppError,
  addDays,
  businessDateOf,
  type Caller,
  invalidField,
  isCalendarDate,
  parseInput,
  requireAccountingExportAdmin,
  type SecretBox,
  STORE_TIME_ZONE,
} from "@pos-cloud/common";
import type { ReceiptService } from "../receipts";
import type { SettlementService } from "../settlements";
import type { StoreAccess, StorePlace } from "../stores";
import { accountingExportDeliveryFilter, accountingExportResend } from "./accounting-export.inputs";
import { presentDelivery } from "./accounting-export.presenter";
import type { AccountingExportRepository } from "./accounting-export.repository";
import { exportSettings } from "./accounting-export-settings.service";
import {
  DEFAULT_DELIVERY_SETTINGS,
  type DeliveryDeps,
  type DeliverySettings,
  deliverDue,
  deliveryFile,
  queueDelivery,
} from "./export-deliveries.service";
import type { ExportFormat } from "./settlement-file.format";

export type AccountingExportService = ReturnType<typeof accountingExportService>;

/** A business day that has ended in Asia/Tokyo: only such a day is closed and exported. */
function endedDay(date: string, now: Date) {
  if (!isCalendarDate(date)) throw invalidField("date", "date", "date must be a real calendar date, YYYY-MM-DD");
  if (date >= businessDateOf(now, STORE_TIME_ZONE))
    throw invalidField("date", "ended", "only a business day that has ended can be exported");
  return date;
}

/**
 * The accounting export (the spec's File exchange): a merchant's settings (format, SFTP server, sealed credentials),
 * the daily settlement file of each of its stores with sales, delivered and retried by `export-deliveries`, and a
 * day sent again on request.
 */
export function accountingExportService(deps: {
  exports: AccountingExportRepository;
  settlements: Pick<SettlementService, "closedDay" | "storesWithSales">;
  receipts: Pick<ReceiptService, "taxOfPayment">;
  access: Pick<StoreAccess, "listScope">;
  box: SecretBox | undefined;
  clock: () => Date;
}) {
  const { exports, clock, box } = deps;
  const delivery: DeliveryDeps = { ...deps, settings: { ...DEFAULT_DELIVERY_SETTINGS } };

  const service = {
    /** For tests: shorter timeouts (the waits move with the clock); unset fields keep their value. */
    configure(changes: Partial<DeliverySettings>) {
      Object.assign(delivery.settings, changes);
    },

    ...exportSettings(exports, box, clock),

    async deliveries(caller: Caller, args: { merchant_id: number; store_id?: number | null; date?: string | null }) {
      const filter = parseInput(accountingExportDeliveryFilter, {
        merchant_id: args.merchant_id,
        store_id: args.store_id ?? undefined,
        date: args.date ?? undefined,
      });
      requireAccountingExportAdmin(caller, filter.merchant_id);
      const rows = await exports.deliveries({
        merchant_id: filter.merchant_id,
        store_id: filter.store_id,
        business_date: filter.date,
      });
      return rows.map(presentDelivery);
    },

    /** A store's ended business day sent again now, by the merchant's admin or an operator (`sendAgain`). */
    async resend(caller: Caller, input: unknown) {
      const data = parseInput(accountingExportResend, input);
      const date = endedDay(data.date, clock());
      const scope = await deps.access.listScope(caller, data.store_id);
      requireAccountingExportAdmin(caller, scope.merchant_id!);
      return service.sendAgain({ storeId: data.store_id, merchantId: scope.merchant_id! }, date);
    },

    /**
     * A store's day built again in its merchant's format as it is now, its attempts started over and the first made
     * now; answers the delivery after that attempt. Also the operator's command (`npm run accounting-export`).
     */
    async sendAgain(store: StorePlace, date: string) {
      endedDay(date, clock());
      const settings = await exports.findSettings(store.merchantId);
      if (!settings) throw new AppError("invalid_state", "the merchant has no accounting export configured");
      const format = settings.format as ExportFormat;
      if (!(await queueDelivery(delivery, store, date, format)))
        await exports.resetDelivery(store.storeId, date, {
          ...(await deliveryFile(delivery, store, date, format)),
          next_attempt_at: clock(),
        });
      await service.deliverDue();
      return presentDelivery((await exports.findDelivery(store.storeId, date))!);
    },

    /** The store's merchant, found among the stores with sales on `date` (the command names only the store). */
    async storeWithSales(storeId: number, date: string): Promise<StorePlace> {
      const found = (await deps.settlements.storesWithSales(endedDay(date, clock()))).find(
        (s) => s.storeId === storeId,
      );
      if (!found) throw new AppError("not_found", `store ${storeId} had no payment or refund on ${date}`);
      return found;
    },

    /**
     * Queues the file of every store with sales on `date` whose merchant has an export, then delivers what is due.
     * Any number of processes may run it: a day is queued once, and each attempt is made by one process.
     */
    async exportDay(date: string) {
      for (const store of await deps.settlements.storesWithSales(date)) {
        const settings = await exports.findSettings(store.merchantId);
        // A day queued already (another worker, an earlier run) is not built again.
        if (!settings || (await exports.findDelivery(store.storeId, date))) continue;
        await queueDelivery(delivery, store, date, settings.format as ExportFormat);
      }
      return service.deliverDue();
    },

    deliverDue: () => deliverDue(delivery),

    /** The scheduled run: the business day that ended at the last midnight in Asia/Tokyo. */
    exportEndedDay: () => service.exportDay(addDays(businessDateOf(clock(), STORE_TIME_ZONE), -1)),
  };
  return service;
}
