/** The store's errors are part of the core's store port contract; they are defined there. */
export * from '../core/store-errors.ts';
