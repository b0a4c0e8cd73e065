/** The deterministic fixture engine of the HTTP runtime protocol (tests, conformance kit, demos). */
export type { RouteName } from './routes.ts';
export { type Fault, FixtureEngine, type LoggedRequest } from './server.ts';
export type { Corruption, ExecutionScript, FixtureArtifact } from './state.ts';
