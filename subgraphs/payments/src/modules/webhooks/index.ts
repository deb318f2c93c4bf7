export { partnerEventTypes } from "./webhook-event.presenter";
