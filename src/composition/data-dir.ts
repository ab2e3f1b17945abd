/** Where a gateway process without DATA_DIR (and without REDIS_URL) keeps its database. */
export const DEFAULT_DATA_DIR = './data';
