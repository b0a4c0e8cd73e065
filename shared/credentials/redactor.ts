/**
 * Redaction of secret values: every value resolved through a SecretsPort is remembered (one Redactor per
 * owner: owner-redactors.ts), and its raw, base64 (standard and URL-safe), hex and URL-encoded forms are
 * replaced by a marker wherever text leaves an action (tool results, transcripts, logs, audit entries).
 */
export const REDACTED = '[REDACTED]';

/** Values shorter than this are not redacted: they would match ordinary text (and are not secrets). */
export const MIN_SECRET_LENGTH = 8;

function encodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  return [
    value,
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    encodeURIComponent(value),
    encodeURIComponent(value).replaceAll('%20', '+'),
    JSON.stringify(value).slice(1, -1),
  ];
}

export class Redactor {
  readonly #forms = new Set<string>();

  /** Remembers a secret value (and its encodings) for redaction. */
  add(value: string): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    for (const form of encodings(value)) if (form.length >= MIN_SECRET_LENGTH) this.#forms.add(form);
  }

  /** Replaces every known secret form in `text`, longest first so a form inside another is not left half. */
  redact(text: string): string {
    let out = text;
    for (const form of [...this.#forms].sort((a, b) => b.length - a.length))
      out = out.split(form).join(REDACTED);
    return out;
  }

  /** Whether `text` carries any known secret value, in any of its encodings. */
  contains(text: string): boolean {
    for (const form of this.#forms) if (text.includes(form)) return true;
    return false;
  }
}
