import { freePorts } from '../support/net';
import { replicasShareOidcState } from '../support/oidc-replicas';
import { sharedPostgres } from './support/shared-postgres';

const pg = sharedPostgres('oidc_replicas');

replicasShareOidcState('one PostgreSQL database', () => ({ DATABASE_URL: pg.url }), freePorts);
