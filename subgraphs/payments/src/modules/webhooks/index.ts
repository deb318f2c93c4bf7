export { partnerEventTypes } from "./webhook-event";
