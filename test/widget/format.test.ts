import { expect } from '@open-wc/testing';
import { formatAmount } from '../../contract/decimal.js';

describe('formatAmount', () => {
  it("shows at least the currency's own digits, and every digit the text has", () => {
    expect(formatAmount('12.5', 'en-US', 'USD')).to.equal('$12.50');
    expect(formatAmount('1000', 'en-US', 'JPY')).to.equal('¥1,000');
    expect(formatAmount('1.5', 'en-US', 'KWD')).to.equal('KWD\u00a01.500');
    expect(formatAmount('0.000000001', 'en-US', 'USD')).to.equal('$0.000000001');
    expect(formatAmount('12500.50', 'id', 'IDR')).to.equal('Rp\u00a012.500,50');
  });

  it('never goes through a float', () => {
    expect(formatAmount('9007199254740993.01', 'en-US', 'USD')).to.equal('$9,007,199,254,740,993.01');
  });

  it('shows text it cannot format as the text it is', () => {
    expect(formatAmount(`0.${'0'.repeat(200)}1`, 'en-US', 'USD')).to.equal(`0.${'0'.repeat(200)}1 USD`);
    expect(formatAmount('abc', 'en-US', 'USD')).to.equal('abc USD');
  });
});
