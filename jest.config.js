/** Jest runs the TypeScript sources through ts-jest; inversify 8, oidc-provider 9 (with jose) and openid-client 6 ship ESM only, so they are transformed too. */
const common = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|@scure|@noble|@otplib|otplib|oidc-provider|jose|openid-client|oauth4webapi)/)'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'contract', testMatch: ['<rootDir>/test/contract/**/*.test.ts'] },
  ],
};
