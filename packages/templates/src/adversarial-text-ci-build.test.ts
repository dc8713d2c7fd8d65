import { describeAdversarialText } from './__tests__/adversarial.js';

describeAdversarialText('ci-build');
