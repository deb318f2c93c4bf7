export type { OutboxService } from "./outbox.service";
