/** `npm run test:postgres`: suites that need a real PostgreSQL (scripts/postgres-setup.sh installs it). */
const base = require('./jest.config.js').projects[0];
module.exports = {
  ...base,
  displayName: 'postgres',
  testMatch: ['<rootDir>/test/postgres/**/*.test.ts'],
  testTimeout: 30000,
};
