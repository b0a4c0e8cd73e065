/**
 * An SNS `Subject` that Publish accepts. SNS: "Subjects must be ASCII text that begins with a letter, number,
 * or punctuation mark; must not include line breaks or control characters; and must be less than 100
 * characters long" (https://docs.aws.amazon.com/sns/latest/api/API_Publish.html). A subject that breaks
 * these rules fails the whole Publish (InvalidParameter), so it is made safe rather than sent as is.
 */

/** The longest subject SNS accepts: "less than 100 characters". */
export const SNS_SUBJECT_MAX = 99;

/** `text` as a valid SNS subject: printable ASCII only, no leading blanks, at most 99 characters. */
export function snsSubject(text: string, fallback = 'Workflow notification'): string {
  // Every character outside printable ASCII (line breaks, controls, non-ASCII, lone surrogates) becomes one
  // character, so cutting afterwards can never split a code point.
  const ascii = Array.from(text, (char) => (/^[\x20-\x7e]$/.test(char) ? char : /\s/.test(char) ? ' ' : '?'))
    .join('')
    .replace(/ {2,}/g, ' ')
    .trim();
  const subject = ascii === '' ? fallback : ascii;
  return subject.length <= SNS_SUBJECT_MAX
    ? subject
    : `${subject.slice(0, SNS_SUBJECT_MAX - 3).trimEnd()}...`;
}
