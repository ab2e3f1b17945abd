import { NodeCryptoPkce } from '../../../src/adapters/crypto/node-crypto-pkce';
import { pkceContract } from './pkce.contract';

pkceContract('NodeCryptoPkce', () => new NodeCryptoPkce());
