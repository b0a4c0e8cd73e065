/**
 * A deterministic fixture engine speaking the HTTP runtime protocol, on loopback only, for tests and demos.
 * Scriptable per execution key or globally (state.ts), with faults on the next requests (drop the
 * connection before or after acting, answer an error status, answer garbage), restarts with a new
 * incarnation, and request counts (so "shadow mode sent nothing" is an assertion).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookSignature } from '../../actions/connectors/signature.ts';
import { HEADERS } from '../http/protocol.ts';
import { answer, type EngineState, type FixtureAnswer, type RouteName, routeOf } from './routes.ts';
import { currentStatus, type Execution, type ExecutionScript } from './state.ts';

/**
 * A fault for the next matching requests: `drop` destroys the socket before acting, `drop_after` acts
 * (e.g. admits) then destroys the socket, `status` answers that HTTP status, `garbage` answers 200 non-JSON.
 */
export type Fault =
  | { kind: 'drop' }
  | { kind: 'drop_after' }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' };
type ArmedFault = { fault: Fault; route: RouteName | undefined; times: number };

/** One request as the fixture saw it. */
export type LoggedRequest = {
  method: string;
  path: string;
  route: RouteName;
  /** Lower-case names; test infrastructure, so credential headers are kept to assert on them. */
  headers: Record<string, string>;
  body: string;
};

export class FixtureEngine {
  readonly #server: Server;
  readonly #scripts = new Map<string, ExecutionScript>();
  readonly #executions = new Map<string, Execution>();
  readonly #refusals = new Map<string, number>();
  #faults: ArmedFault[] = [];
  #restarts = 1;
  #port = 0;
  /** Every request received, in order (dropped ones included). */
  readonly requests: LoggedRequest[] = [];

  readonly prefix: string;

  private constructor(prefix: string) {
    this.prefix = prefix;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  /** Starts a fixture engine on 127.0.0.1 (port 0: a free one). */
  static async start(options: { port?: number; incarnationPrefix?: string } = {}): Promise<FixtureEngine> {
    const engine = new FixtureEngine(options.incarnationPrefix ?? 'fixture');
    await new Promise<void>((resolve) => engine.#server.listen(options.port ?? 0, '127.0.0.1', resolve));
    engine.#port = (engine.#server.address() as AddressInfo).port;
    return engine;
  }

  /** The port it listens on (kept after `close`, so a test can show the engine gone from that port). */
  get port(): number {
    return this.#port;
  }
  /** The endpoint to configure an adapter with. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** The runtime's current incarnation (changes on `restart`). */
  get incarnation(): string {
    return `${this.prefix}-${this.#restarts}`;
  }

  /** Scripts executions admitted from now on under `key`, or every key without a script of its own (`*`). */
  script(key: string | '*', script: ExecutionScript): this {
    this.#scripts.set(key, script);
    return this;
  }

  /** Arms a fault for the next `times` requests (default: until `clearFaults`), optionally of one route. */
  fault(fault: Fault, options: { route?: RouteName; times?: number } = {}): this {
    this.#faults.push({ fault, route: options.route, times: options.times ?? Number.POSITIVE_INFINITY });
    return this;
  }
  clearFaults(): this {
    this.#faults = [];
    return this;
  }

  /**
   * Restarts with a new incarnation. Known executions are recreated under it (same key and payload, state
   * from the start): the "recreated execution" an adapter must refuse. `forget` drops them instead.
   */
  restart(options: { forget?: boolean } = {}): this {
    this.#restarts += 1;
    if (options.forget) this.#executions.clear();
    for (const execution of this.#executions.values()) {
      Object.assign(execution, { incarnation: this.incarnation, observes: 0, cancel: 'none' });
    }
    return this;
  }

  /** Requests received, in total or for one route. */
  count(route?: RouteName): number {
    return route === undefined ? this.requests.length : this.requests.filter((r) => r.route === route).length;
  }
  /** An admitted execution, to inspect (payload, observes, cancel). */
  execution(key: string): Readonly<Execution> | undefined {
    return this.#executions.get(key);
  }

  /** Pushes the execution's status to its callback URL, signed with `secret`; answers the receiver's status. */
  async pushStatus(key: string, secret: string, nowSeconds: number): Promise<number> {
    const execution = this.#executions.get(key);
    if (execution?.callbackUrl === undefined) throw new Error(`no callback URL for ${key}`);
    const body = JSON.stringify(currentStatus(execution));
    const response = await fetch(execution.callbackUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [HEADERS.signatureTimestamp]: String(nowSeconds),
        [HEADERS.signature]: webhookSignature(secret, nowSeconds, body),
      },
      body,
    });
    return response.status;
  }

  /** Stops listening (the port then refuses connections: an engine that disappeared). Idempotent. */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    const method = req.method ?? 'GET';
    const { route } = routeOf(method, path);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers[name] = value;
    const body = Buffer.concat(chunks).toString('utf8');
    this.requests.push({ method, path, route, headers, body });
    const fault = this.#takeFault(route);
    if (fault?.kind === 'drop') return void req.socket.destroy();
    if (fault?.kind === 'status') return send(res, { status: fault.status, body: '{"error":"fault"}' });
    if (fault?.kind === 'garbage') return send(res, { status: 200, body: '<html>not json' });
    const state: EngineState = {
      runtimeIncarnation: this.incarnation,
      executions: this.#executions,
      refusals: this.#refusals,
      scriptFor: (key) => this.#scripts.get(key) ?? this.#scripts.get('*') ?? {},
    };
    const result = answer(state, { method, path, headers, body });
    if (fault?.kind === 'drop_after') return void req.socket.destroy();
    send(res, result);
  }

  #takeFault(route: RouteName): Fault | undefined {
    const armed = this.#faults.find((f) => f.times > 0 && (f.route === undefined || f.route === route));
    if (armed === undefined) return undefined;
    armed.times -= 1;
    return armed.fault;
  }
}

function send(res: ServerResponse, result: FixtureAnswer): void {
  res.writeHead(result.status, { 'content-type': 'application/json', ...result.headers });
  res.end(result.body);
}
