-- Tenant isolation in the database itself: a backstop behind the application guards.
-- Tenant work runs as michi_tenant (no BYPASSRLS) with app.tenant_id set per transaction.
DO $$
BEGIN
  -- Roles are cluster-wide: databases migrating at the same moment may race to create it.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'michi_tenant') THEN
    BEGIN
      CREATE ROLE michi_tenant NOLOGIN NOBYPASSRLS;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
  -- A non-superuser owner needs membership to SET ROLE; a superuser already may.
  BEGIN
    EXECUTE format('GRANT michi_tenant TO %I', current_user);
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'could not grant michi_tenant to %: %', current_user, SQLERRM;
  END;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO michi_tenant;
--> statement-breakpoint
-- Reads the tenant of the current transaction. set_config(..., true) leaves '' (not NULL) behind on a pooled
-- connection once the transaction ends, so '' must mean "no tenant".
CREATE OR REPLACE FUNCTION michi_current_tenant() RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('app.tenant_id', true), '')::uuid
$$;
--> statement-breakpoint
-- Idempotent: enables and forces RLS with the same two policies on every public table that has a tenant_id
-- column. The migration runner calls it after every run, so a table added later cannot be left open.
CREATE OR REPLACE FUNCTION michi_secure_tenant_tables() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  t record;
  n integer := 0;
BEGIN
  FOR t IN
    SELECT c.relname
    FROM pg_class c
    JOIN pg_namespace ns ON ns.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
    WHERE ns.nspname = 'public' AND c.relkind IN ('r', 'p')
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t.relname);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t.relname);
    EXECUTE format('DROP POLICY IF EXISTS tenant_isolation ON %I', t.relname);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I TO michi_tenant USING (tenant_id = michi_current_tenant()) WITH CHECK (tenant_id = michi_current_tenant())',
      t.relname);
    EXECUTE format('DROP POLICY IF EXISTS platform_access ON %I', t.relname);
    EXECUTE format('CREATE POLICY platform_access ON %I TO %I USING (true) WITH CHECK (true)', t.relname, current_user);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO michi_tenant', t.relname);
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;
--> statement-breakpoint
SELECT michi_secure_tenant_tables();
--> statement-breakpoint
-- The tenant row itself: tenant work may read and update its own row only.
ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_self ON tenants TO michi_tenant USING (id = michi_current_tenant()) WITH CHECK (id = michi_current_tenant());
--> statement-breakpoint
DO $$ BEGIN EXECUTE format('CREATE POLICY platform_access ON tenants TO %I USING (true) WITH CHECK (true)', current_user); END $$;
--> statement-breakpoint
GRANT SELECT, UPDATE ON tenants TO michi_tenant;
--> statement-breakpoint
-- Member lists need names and e-mails, never password hashes.
GRANT SELECT (id, email, name, created_at) ON users TO michi_tenant;
