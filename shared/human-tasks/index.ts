export { createHumanTaskApp } from './app.ts';
export type { ExpireResult, HumanTaskCloseDeps } from './close.ts';
export { closeHumanTasks, expireHumanTask } from './close.ts';
export type { CompleteResult } from './complete.ts';
export { completeHumanTask } from './complete.ts';
export type { HumanTaskDeps, HumanTaskStore } from './deps.ts';
export { formHash } from './deps.ts';
export { HUMAN_TASK_ERRORS } from './errors.ts';
export type { FormField } from './form-fields.ts';
export { checkFormSchema, formFields, LONG_TEXT_FORMAT } from './form-fields.ts';
export type { GraphHumanTaskPort, GraphHumanTaskRequest } from './port.ts';
export { humanTaskCloser, humanTaskPort, lazyHumanTaskPort } from './port.ts';
export type {
  HumanTaskNode,
  RequestHumanTaskDeps,
  RequestHumanTaskInput,
  RequestHumanTaskResult,
} from './request.ts';
export { openHumanTask, requestHumanTask, type TaskSpec } from './request.ts';
export { readSubmission } from './submission.ts';
