export * from './message.model';
export * from './delivery.errors';
export * from './delivery.retry';
export * from './phone-number.normalizer';
export * from './smtp-email.sender';
export * from './twilio-sms.sender';
export * from './message.templates';
export * from './recording.senders';
