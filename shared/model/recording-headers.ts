/**
 * The headers the local stack's model adapter sends to the scripted server and the recording proxy: the
 * fixture (workflow) name, the run a recorded conversation belongs to and that run's owner. None reaches the
 * Anthropic API (the proxy removes them before forwarding).
 */

/** Names the fixture the scripted server serves, and the name a recording is saved under. */
export const FIXTURE_HEADER = 'x-scripted-fixture';

/**
 * The run whose conversation a request belongs to. The recording proxy keys conversations by it alone: a
 * fixture name is a workflow's name, unique per owner only, so two owners' "triage" runs never share one.
 */
export const RECORDING_RUN_HEADER = 'x-recording-run';

/**
 * The owner of that run: the proxy keeps a number of recordings per owner, so one owner's many runs never push
 * another owner's recording out.
 */
export const RECORDING_OWNER_HEADER = 'x-recording-owner';
