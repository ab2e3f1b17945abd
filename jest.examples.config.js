/**
 * Examples suite: every shipped example rendered as its own instructions say. nginx and Caddy run
 * for real over HTTPS in front of the built gateway and a recording application (see
 * scripts/e2e-setup.sh); Traefik, Docker and Kubernetes cannot run here, so their files are parsed
 * and cross-checked. Kept apart from `npm test` like the end-to-end suite; one file at a time.
 */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|@scure|@noble|@otplib|otplib|oidc-provider|jose|openid-client|oauth4webapi)/)'],
  testMatch: ['<rootDir>/test/examples/**/*.test.ts'],
  maxWorkers: 1,
  testTimeout: 30000,
  slowTestThreshold: 30,
};
