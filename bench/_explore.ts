import { requestApproval } from '../shared/approvals-http/index.ts';
import { decideApproval } from '../shared/core/approval-ops.ts';
import { runTurn } from '../shared/core/turn.ts';
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { driveRun, engineDeps, firstAttempt } from '../test/support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { benchStore } from './support.ts';
import { requestRecorder } from './turn-profile.ts';
const gatedFixture = { name: 'gated', turns: [
  { response: { content: [{ type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line: 'gated' } }] } },
  { text: 'done' } ] };
const server = await startScriptedModelServer({ fixtures: [gatedFixture] });
const bench = await benchStore();
const { store } = bench;
const rec = requestRecorder(store);
const model = createAnthropicModel({ apiKey: 'b', baseURL: server.url, defaultHeaders: { 'x-scripted-fixture': 'gated' } });
const show = (name: string, log: { command: string; items: string[] }[]) => console.log(name, JSON.stringify(log.map((l) => `${l.command}[${l.items.join(',')}]`)));
try {
  const gated = await seedWorkflow(store, minimalWorkflow({ gates: { notes_append: 'needs_approval' }, approvals: { approvers: ['a@example.com'] } }));
  const clock = new FixedClock();
  for (let i = 0; i < 2; i++) {
  const run = await seedRun(store, gated.version, { clock });
  const deps = engineDeps(store, model, { clock });
  const a = await rec.record(() => runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0, attempt: firstAttempt(run.runId) }));
  show('park', a.log); console.log(JSON.stringify(a.value));
  const b = await rec.record(() => requestApproval({ store, clock, keyring: { current: { kid: 'b', secret: 'bench-approval-secret-0123456789abcdef' } }, publicBaseUrl: 'http://127.0.0.1:8787',
    notifier: { channel: 'b', reaches: () => true, notify: async () => {} }, taskTokens: { sendSuccess: async () => 'sent' as const, sendFailure: async () => 'sent' as const }, logger: { info() {}, warn() {}, error() {} } }, { runId: run.runId, taskToken: `t${i}` }));
  show('reqapp', b.log);
  const [approvalId] = (await store.getRun(run.runId))!.pendingApprovalIds;
  const c = await rec.record(() => store.getApprovalWithRun(approvalId!, run.runId)); show('page', c.log);
  const d = await rec.record(() => decideApproval({ store, clock }, { approvalId: approvalId!, approver: 'a@example.com', decision: 'approved' }, { approval: c.value!.approval, run: c.value!.run! })); show('decide', d.log);
  const e = await rec.record(() => driveRun(deps, run.runId, { turn: a.value.turn, segmentStartTurn: 0 })); show('resume', e.log);
  }
} finally { await server.close(); await bench.stop(); }
