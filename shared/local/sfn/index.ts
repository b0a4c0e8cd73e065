export { prepareDefinition, type TaskPlan } from './definition.ts';
export { type LocalSfnEndpoint, type SfnRefusal, startLocalSfnEndpoint } from './endpoint.ts';
export {
  isSfnError,
  LambdaFault,
  LocalDefinitionError,
  LocalSfnClosedError,
  SFN_ERROR_CODES,
  SfnApiError,
  type SfnErrorCode,
  TaskFailedError,
} from './errors.ts';
export { LocalStepFunctions } from './local-step-functions.ts';
export type { WaitInfo } from './tokens.ts';
export type {
  ExecutionDescription,
  ExecutionStatus,
  ExecutionSummary,
  Handler,
  LocalSfnEvent,
  LocalStepFunctionsOptions,
} from './types.ts';
