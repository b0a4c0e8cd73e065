/**
 * URL templates of named HTTP actions: `{param}` placeholders in the path or query are filled from the
 * input, URL-encoded, and removed from what goes into the body. The scheme, host and port are never
 * templated (the model must not choose where a credential goes), and a parameter can never climb the path
 * (`.`, `..` and empty values are refused; `/`, `?`, `#` and `%` are encoded).
 */
import { ActionInputError, ConnectorConfigError } from '../errors.ts';

const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)\}/g;

/** The placeholder names of a URL template, in order, without repeats. */
export function templateParams(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/** The fixed origin of a template. Throws `ConnectorConfigError` when the authority is templated. */
export function templateOrigin(connector: string, template: string): URL {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(template)?.[0] ?? '';
  if (authority === '' || authority.includes('{')) {
    throw new ConnectorConfigError(connector, 'the scheme, host and port of the URL cannot be templated');
  }
  return new URL(authority);
}

/** Fills the template; returns the URL and the input without the path parameters. */
export function fillTemplate(
  connector: string,
  template: string,
  input: Record<string, unknown>,
): { url: URL; rest: Record<string, unknown> } {
  const origin = templateOrigin(connector, template);
  const params = new Set(templateParams(template));
  const filled = template.replace(PLACEHOLDER, (_whole, name: string) => pathValue(name, input[name]));
  const url = new URL(filled);
  if (url.origin !== origin.origin) {
    throw new ConnectorConfigError(connector, 'the filled URL left the declared origin');
  }
  const rest = Object.fromEntries(Object.entries(input).filter(([name]) => !params.has(name)));
  return { url, rest };
}

function pathValue(name: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new ActionInputError(name, 'a path parameter must be a string, number or boolean');
  }
  const text = String(value);
  if (text === '' || text === '.' || text === '..') {
    throw new ActionInputError(name, `${JSON.stringify(text)} is not allowed as a path parameter`);
  }
  return encodeURIComponent(text);
}
