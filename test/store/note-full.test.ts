/**
 * A run note is one item, at most 400 KB with its lines together
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-items): a long run that
 * keeps appending to one note reaches it. The append DynamoDB refuses is a NoteFullError naming the note (the model
 * reads it as the action's failure); before, it was DynamoDB's bare "Item size to update has exceeded the maximum
 * allowed size", which names no note and no limit.
 */
import { describe, expect, it } from 'vitest';
import { notesAppendAction } from '../../shared/actions/builtins/notes.ts';
import { missingRunId, testStore } from '../support/store.ts';

const store = testStore();

describe('a run note past 400 KB', () => {
  it('refuses the append that would pass it, naming the note; what it holds stays', async () => {
    const runId = missingRunId();
    // 2,000 characters of three UTF-8 bytes each: the longest line notes_append takes, 6,000 bytes.
    const line = '€'.repeat(2000);
    let appended = 0;
    let refused: unknown;
    while (refused === undefined && appended < 100) {
      try {
        appended = await store.append(runId, 'log', line);
      } catch (error) {
        refused = error;
      }
    }
    expect(appended).toBeGreaterThan(60);
    expect(refused).toMatchObject({
      name: 'NoteFullError',
      message: expect.stringContaining("note 'log' is full"),
    });
    expect(await store.getNoteLines(runId, 'log')).toHaveLength(appended);

    // As the model sees it: the action's failure, saying what to do.
    const action = notesAppendAction(store);
    const scope = { runId, owner: 'o', workflowId: 'wf_test01' };
    await expect(action.run({ name: 'log', line }, { scope } as never)).rejects.toThrow(/notes_put/);
  });
});
