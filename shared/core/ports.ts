/**
 * Ports: everything the pure core needs from the outside world.
 * Nothing in `shared/core` imports an AWS SDK, the Anthropic SDK, `process.env` or `Date.now()`;
 * adapters implement these interfaces and handlers wire them together.
 */

/** Wall clock, injected so tests can fix time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

/** A clock that can also wait (a budget waiting for other runs' reservations). */
export interface WaitingClock extends Clock {
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

/** Id source, injected so tests are deterministic. */
export interface Ids {
  /** A new unique id with the given prefix, e.g. `run_…`. */
  next(prefix: string): string;
}

// ---------------------------------------------------------------- model

/** A content block of the Messages API, as the core stores and replays it. */
export type TextBlock = { type: 'text'; text: string };
export type ToolUseBlock = { type: 'tool_use'; id: string; name: string; input: unknown };
export type ToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean | undefined;
};
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature: string };
export type RedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

export type MessageRole = 'user' | 'assistant';
export type Message = { role: MessageRole; content: ContentBlock[] };

/** A tool as offered to the model: name, description and the JSON Schema of its input. */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high';

export type ModelRequest = {
  /** A resolved model id (roles are resolved before the port is called). */
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  maxTokens: number;
  thinking: ThinkingLevel;
  /** The workflow asking: context for routing adapters (the scripted server picks its fixture by it). */
  workflow?: string;
  /** The run asking: the local recording proxy keeps each run's conversation apart by it. */
  runId?: string;
  /**
   * The run's owner: the adapter opens the system prompt with a block derived from it, before every
   * prompt-cache breakpoint, so no cached prefix is shared between owners (docs/security.md "Prompt cache");
   * the local recording proxy bounds its recordings per owner by it.
   */
  owner?: string;
};

/** Token usage as reported by the Messages API. */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
};

export type ModelStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'refusal'
  | 'stop_sequence'
  | 'pause_turn';

export type ModelResponse = {
  model: string;
  content: ContentBlock[];
  stopReason: ModelStopReason;
  usage: Usage;
};

/**
 * The model port: one Messages API call. Errors are `ModelError`s (see shared/model/errors.ts); an error
 * with a 4xx HTTP `status` (other than 408) is the provider refusing the request before any output, so the
 * call was not billed.
 */
export interface ModelPort {
  call(request: ModelRequest): Promise<ModelResponse>;
  /**
   * The `max_tokens` this port will send for `request` (thinking included): what a budget must reserve at
   * the output rate. Without it, the core assumes the default per-model thinking style (`maxOutputTokensOf`).
   */
  maxOutputTokens?(request: ModelRequest): number;
}

// ---------------------------------------------------------------- actions, egress, secrets

/**
 * What a tool returns to the model: text content, flagged when it is an error. Failures are data.
 * `outcomeUnknown` marks a call that may have taken effect although no answer came back (sent, then a
 * timeout, reset or oversized response; or dispatched when the run ended): never a plain failure, and the
 * ledger row carries the same marker. See docs/actions.md "Outcome classes".
 */
export type ToolOutcome = { content: string; isError: boolean; outcomeUnknown?: true | undefined };

/**
 * A reference to a credential held in Secrets Manager (or the local secrets file), on behalf of one owner.
 * Never a value. A port resolves only the owner's own secrets (`wf/<ownerKey>/…`) and refuses the rest.
 */
export type CredentialRef = { owner: string; secret: string; field?: string };

/** Resolves a credential reference to its value at dispatch time, server-side. */
export interface SecretsPort {
  /**
   * Rejects when the value cannot be had; an error with `permanent: true` says no retry can help (no such
   * secret, access denied, a name outside the owner's namespace): the adapter maps its store's errors to that.
   */
  resolve(ref: CredentialRef): Promise<string>;
  /**
   * Replaces every secret value resolved so far for `owner` (and its base64, hex and URL-encoded forms) with
   * a marker. Only that owner's: a port serves many owners, and redacting (or, in the credential check,
   * refusing) another owner's value in this owner's text would tell them it is someone's secret. The caller
   * passes the run's owner; a port never infers it.
   */
  redact(owner: string, text: string): string;
}

/**
 * A header that carries a credential, bound to the one origin it may be sent to
 * (re-injected on redirects to that origin only, dropped everywhere else).
 */
export type BoundCredentialHeader = { origin: string; name: string; value: string };

export type EgressRequest = {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Credential headers, injected by the runtime, never supplied by the model. */
  credentialHeaders?: BoundCredentialHeader[];
  /** Hosts this action may reach, on top of the guard's own address checks. */
  allowedHosts?: string[];
  /**
   * A request that sends something (a method other than GET/HEAD/OPTIONS, or a body) is never redirected
   * off its origin, except to these exact host names (an internal call among the internal hosts).
   */
  unsafeRedirectHosts?: string[];
};

export type EgressResponse = { status: number; headers: Record<string, string>; body: string; url: string };

/** Every outbound request of the product goes through this port (the SSRF-safe guard in shared/egress). */
export interface EgressPort {
  request(request: EgressRequest): Promise<EgressResponse>;
}

export type ActionContext = {
  /** Derived from the ledger identity (run, turn, tool_use id): stable across retries. */
  idempotencyKey: string;
  egress: EgressPort;
  secrets: SecretsPort;
  clock: Clock;
};
