import { decoyCost } from '../../../src/composition/container';

const hash = (cost: string): string => `$2b$${cost}$${'a'.repeat(53)}`;

describe('decoyCost', () => {
  it('is the highest bcrypt cost among the configured accounts, so an unknown name costs what a wrong password costs', () => {
    expect(decoyCost([{ username: 'a', hash: hash('04') }, { username: 'b', hash: hash('12') }, { username: 'c', hash: `$2y$11$${'a'.repeat(53)}` }])).toBe(12);
  });

  it('is 10 when no account is configured', () => {
    expect(decoyCost([])).toBe(10);
  });
});
