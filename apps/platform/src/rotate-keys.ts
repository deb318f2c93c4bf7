// npm run keys:rotate: replaces the human and device signing keys of the configured storage now. With embedded
// storage (PGlite under DATA_DIR), stop the platform first: only one process may open that storage at a time.
import { loadEnvironment } from "./environment";
import { rotateSigningKeys } from "./signing-keys";

try {
  const kids = await rotateSigningKeys(loadEnvironment());
  console.log(`signing keys rotated: human ${kids.human}, device ${kids.device}; old keys verify for 7 more days`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
