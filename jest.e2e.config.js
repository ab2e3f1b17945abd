/**
 * End-to-end suite: real gateway, nginx, caddy and Chromium (see scripts/e2e-setup.sh). Kept apart
 * from `npm test` so the unit and contract suites need no Debian packages. One file at a time: each
 * starts its own processes, and the machine is small.
 */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|@scure|@noble|@otplib|otplib|oidc-provider|jose|openid-client|oauth4webapi)/)'],
  testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
  maxWorkers: 1,
  testTimeout: 60000,
  slowTestThreshold: 30,
};
