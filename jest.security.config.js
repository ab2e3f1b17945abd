/**
 * Security suite: the attack corpus through real nginx and caddy configured from `examples/`, in
 * front of real prefix-routing upstreams (Koa and Flask), with the built gateway behind them (see
 * scripts/security-setup.sh). Kept apart from `npm test` like the end-to-end suite; one file at a
 * time, since each starts its own processes and the machine is small.
 */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|@scure|@noble|@otplib|otplib|oidc-provider|jose|openid-client|oauth4webapi)/)'],
  testMatch: ['<rootDir>/test/security/**/*.test.ts'],
  maxWorkers: 1,
  testTimeout: 30000,
  slowTestThreshold: 30,
};
