/**
 * Which recorded conversation of a workflow answers a request, when several were recorded
 * (`wf run start --record`, docs/local-development.md): the one whose recorded first user message (the task,
 * with instants and run ids masked) is the request's. Every turn of a conversation repeats that message, so
 * each turn finds the same one. A fixture without a recorded first user message (written by hand) answers
 * when no recording matches; with neither, the request drifted from every recording and the error says so.
 */
import { cutText } from '../core/byte-caps.ts';
import { firstUserText, stable, type WireRequest } from './scripted-expect.ts';
import type { ParsedFixture } from './scripted-fixture.ts';

export type Candidate = [key: string, fixture: ParsedFixture];

const recordedFirstUser = (fixture: ParsedFixture) => fixture.turns[0]?.expect?.recorded?.firstUser;

/** The candidate that answers `request`, or the drift message naming what was recorded. */
export function pickConversation(
  name: string,
  candidates: readonly Candidate[],
  request: WireRequest,
): Candidate | { drift: string } {
  if (candidates.length === 1) return candidates[0]!;
  const task = stable(firstUserText(request));
  const recorded = candidates.find(([, fixture]) => {
    const first = recordedFirstUser(fixture);
    return first !== undefined && stable(first) === task;
  });
  if (recorded) return recorded;
  const handWritten = candidates.find(([, fixture]) => recordedFirstUser(fixture) === undefined);
  if (handWritten) return handWritten;
  const names = candidates.map(([, fixture]) => fixture.conversation ?? '(unnamed)').join(', ');
  const now = JSON.stringify(task.length > 80 ? `${cutText(task, 77)}...` : task);
  return {
    drift: `scripted-model expectation failed: fixture "${name}": drift: firstUser matches none of the ${candidates.length} recorded conversations (${names}); now ${now}`,
  };
}
