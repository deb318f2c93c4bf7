import type { deviceApi } from "./client";
import { hex } from "./encoding";
import { unwrap } from "./errors";

type Api = ReturnType<typeof deviceApi>["api"];

/** A download whose bytes are not what the platform published: it must not be installed. */
export class ChecksumMismatchError extends Error {
  override readonly name = "ChecksumMismatchError";
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the APK's checksum is ${actual}, not the published ${expected}`);
  }
}

/** An update the platform offers this device, downloaded and verified against its published size and SHA-256. */
export interface VerifiedUpdate {
  versionCode: number;
  versionName: string;
  isMandatory: boolean;
  releaseNotes: string | null;
  apk: Uint8Array;
}

async function verifiedDownload(send: typeof fetch, url: string, checksum: string, size: number | null) {
  const response = await send(url);
  if (!response.ok) throw new Error(`the APK download answered ${response.status}`);
  const apk = new Uint8Array(await response.arrayBuffer());
  const actual = `sha256:${hex(await crypto.subtle.digest("SHA-256", apk))}`;
  if (actual !== checksum.toLowerCase()) throw new ChecksumMismatchError(checksum, actual);
  if (size !== null && apk.byteLength !== size)
    throw new ChecksumMismatchError(`${size} bytes`, `${apk.byteLength} bytes`);
  return apk;
}

/**
 * Asks whether `appName` has an update for this device (`GET /api/v1/app-updates/check`); when it has, downloads the
 * APK with `download` and verifies it before handing it over. Null when there is none.
 */
export async function checkAppUpdate(
  api: Api,
  download: typeof fetch,
  device: { deviceId: string },
  appName: string,
  currentVersionCode: number,
): Promise<VerifiedUpdate | null> {
  const offer = unwrap(
    await api.GET("/api/v1/app-updates/check", {
      params: { query: { app_name: appName, current_version_code: currentVersionCode, device_id: device.deviceId } },
    }),
  );
  if (!offer.update_available || !offer.apk_url || !offer.apk_checksum || offer.version_code === null) return null;
  return {
    versionCode: offer.version_code,
    versionName: offer.version_name ?? String(offer.version_code),
    isMandatory: offer.is_mandatory ?? false,
    releaseNotes: offer.release_notes ?? null,
    apk: await verifiedDownload(download, offer.apk_url, offer.apk_checksum, offer.apk_size),
  };
}
