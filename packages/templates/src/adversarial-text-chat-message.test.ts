import { describeAdversarialText } from './__tests__/adversarial.js';

describeAdversarialText('chat-message');
