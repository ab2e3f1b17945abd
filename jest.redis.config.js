/** `npm run test:redis`: suites that need a real redis-server (scripts/redis-setup.sh installs it). */
const base = require('./jest.config.js').projects[0];
module.exports = {
  ...base,
  displayName: 'redis',
  testMatch: ['<rootDir>/test/redis/**/*.test.ts'],
  testTimeout: 30000,
};
