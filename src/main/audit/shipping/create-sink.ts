import type { AuditSinkConfig } from '../../../shared/audit-shipping';
import type { AuditSink } from './audit-sink';
import { createSyslogSink } from './syslog-sink';

/** The sink a configuration names. */
export function createAuditSink(config: AuditSinkConfig): AuditSink {
  switch (config.type) {
    case 'syslog':
      return createSyslogSink({ config });
  }
}
