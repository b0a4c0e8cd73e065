export * from './aws.ts';
export * from './aws-config.ts';
export * from './aws-inputs.ts';
export * from './errors.ts';
export * from './event-bus.ts';
export * from './local.ts';
export * from './port.ts';
