/** External execution engines: the contract, its errors, the ports and the registry (docs/external-engines.md). */
export * from './contract.ts';
export * from './errors.ts';
export * from './ports.ts';
export * from './registry.ts';
