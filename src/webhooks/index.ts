export {
  createWebhookReceiver,
  MAX_BODY_BYTES,
  type IssueDeliveryNotice,
  type WebhookReceiverOptions,
} from "./receiver.js";
export { deliveryIds, type DeliveryIds } from "./delivery-ids.js";
