import { freePorts } from '../support/net';
import { upstreamLogoutOnReplicas } from '../support/upstream-logout-replicas';
import { sharedPostgres } from './support/shared-postgres';

const pg = sharedPostgres('upstream_logout');

upstreamLogoutOnReplicas('one PostgreSQL database', () => ({ DATABASE_URL: pg.url }), freePorts);
