/**
 * The headers the local stack's model adapter sends to the scripted server and the recording proxy: the
 * fixture (workflow) name, and the run a recorded conversation belongs to. Neither reaches the Anthropic API
 * (the proxy removes both before forwarding).
 */

/** Names the fixture the scripted server serves, and the name a recording is saved under. */
export const FIXTURE_HEADER = 'x-scripted-fixture';

/**
 * The run whose conversation a request belongs to. The recording proxy keys conversations by it alone: a
 * fixture name is a workflow's name, unique per owner only, so two owners' "triage" runs never share one.
 */
export const RECORDING_RUN_HEADER = 'x-recording-run';
