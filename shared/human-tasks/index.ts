// Forms are read by the graph's one form reader (save check and page alike).
export { type FormField, formFields, LONG_TEXT_FORMAT, readForm } from '../graph/form.ts';
export { createHumanTaskApp } from './app.ts';
export type { ExpireResult, HumanTaskCloseDeps } from './close.ts';
export { closeHumanTasks, expireHumanTask } from './close.ts';
export type { CompleteResult } from './complete.ts';
export { completeHumanTask } from './complete.ts';
export type { HumanTaskDeps, HumanTaskStore } from './deps.ts';
export { formHash } from './deps.ts';
export { HUMAN_TASK_ERRORS } from './errors.ts';
export type { GraphHumanTaskPort, GraphHumanTaskRequest } from './port.ts';
export { humanTaskCloser, humanTaskPort, lazyHumanTaskPort } from './port.ts';
export type { RequestHumanTaskDeps, RequestHumanTaskResult } from './request.ts';
export { openHumanTask, type TaskSpec } from './request.ts';
export { readSubmission } from './submission.ts';
