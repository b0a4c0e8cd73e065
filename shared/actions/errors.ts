/**
 * Errors of the action implementations. An action's failure normally reaches the model as a tool result
 * (failures are data); these are thrown where a call cannot be made at all. Messages name connectors,
 * slots and fields, never a credential value or a secret URL.
 */

/** A connector's declaration cannot be turned into a request (e.g. a templated host, an unknown slot). */
export class ConnectorConfigError extends Error {
  readonly connector: string;
  constructor(connector: string, detail: string, options?: { cause?: unknown }) {
    super(`connector '${connector}': ${detail}`, options);
    this.name = 'ConnectorConfigError';
    this.connector = connector;
  }
}

/** A value of the input cannot be placed into the request (e.g. a `..` path parameter). */
export class ActionInputError extends Error {
  readonly field: string;
  constructor(field: string, detail: string) {
    super(`input '${field}': ${detail}`);
    this.name = 'ActionInputError';
    this.field = field;
  }
}
