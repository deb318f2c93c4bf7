import { type Caller, notFound, requireCaller } from "@pos-cloud/common";
import DataLoader from "dataloader";

/**
 * One request's reads of one entity type by id, batched: `read` fetches them all in one statement, and each row is
 * checked like its single read (401 without a caller, before any lookup; 404 for an id no row has; `check`'s own
 * refusal, 403, for a row out of reach). A refusal fails that id alone. `check` also presents the row.
 */
export function referenceLoader<K extends number | string, R extends { id: K }, T>(
  caller: Caller,
  entity: string,
  read: (ids: K[]) => Promise<R[]>,
  check: (row: R) => T,
) {
  return new DataLoader<K, T>(async (ids) => {
    requireCaller(caller);
    const rows = new Map((await read([...ids])).map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = rows.get(id);
      if (!row) return notFound(entity);
      try {
        return check(row);
      } catch (error) {
        return error as Error;
      }
    });
  });
}
