export type { SigningKeyService } from "./signing-key.service";
