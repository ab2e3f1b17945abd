/** The LDAP suite: needs slapd from Debian's packages (scripts/ldap-setup.sh); run with `npm run test:ldap`. */
module.exports = {
  displayName: 'ldap',
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|@scure|@noble|@otplib|otplib|oidc-provider|jose|openid-client|oauth4webapi)/)'],
  testMatch: ['<rootDir>/test/ldap/**/*.test.ts'],
  testTimeout: 30000,
};
