/**
 * An SNS `Message` that Publish accepts. A topic takes messages up to its `MaximumMessageSize`, 262,144 bytes
 * (256 KiB) by default, and "Amazon SNS validates the combined size of the message body and message
 * attributes" against it, refusing a larger one with `InvalidParameter`
 * (https://docs.aws.amazon.com/sns/latest/dg/large-message-payloads.html; "All parts of the message attribute,
 * including name, type, and value, are included in the message size restriction":
 * https://docs.aws.amazon.com/sns/latest/api/API_MessageAttributeValue.html). The runtime's topics keep the
 * default. A message over it is cut (never inside a character) with a note, rather than refused whole.
 */
import { capUtf8, utf8Length } from '../core/byte-caps.ts';

/** The most bytes of message body and attributes a topic with the default `MaximumMessageSize` accepts. */
export const SNS_MESSAGE_MAX_BYTES = 262_144;

/** A String message attribute, as Publish takes it. */
export type SnsStringAttributes = Record<string, { DataType: string; StringValue: string }>;

/** The note a cut message ends with. */
export const SNS_MESSAGE_CUT_NOTE =
  '\n\n[truncated: the message was over the 256 KiB SNS accepts; read the whole run in the API]';

/** The bytes Publish counts for `attributes`: each one's name, data type and value. */
export function snsAttributeBytes(attributes: SnsStringAttributes): number {
  return Object.entries(attributes).reduce(
    (sum, [name, value]) =>
      sum + utf8Length(name) + utf8Length(value.DataType) + utf8Length(value.StringValue),
    0,
  );
}

/**
 * `message` as the body of a Publish carrying `attributes` (and `subject`, counted too, to be safe): cut so that
 * together they stay within `SNS_MESSAGE_MAX_BYTES`, ending with `SNS_MESSAGE_CUT_NOTE` when cut.
 */
export function snsMessage(message: string, attributes: SnsStringAttributes, subject = ''): string {
  const room = SNS_MESSAGE_MAX_BYTES - snsAttributeBytes(attributes) - utf8Length(subject);
  return capUtf8(message, room, SNS_MESSAGE_CUT_NOTE);
}
