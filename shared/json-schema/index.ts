export {
  type CompiledSchema,
  compileSchema,
  type ErrorObject,
  MAX_CACHED_VALIDATORS,
  SCHEMA_MODES,
  type SchemaMode,
  type ValidateFunction,
} from './validators.ts';
