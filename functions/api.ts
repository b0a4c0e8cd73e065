/** Placeholder until the handler lands; bundling needs the entry to exist. */
export const handler = async (): Promise<never> => {
  throw new Error('handler not wired yet');
};
