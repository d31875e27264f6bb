import { describe, expect, it } from 'vitest';
import { chunksOf, toLowstate, unserializeBody } from '../../src/api/lowstate';
import { errorPage } from '../../src/api/http-error';
import { readExchange } from '../support/api-exchanges';

describe('request bodies (rest_cherrypy hypermedia_in, lowdata_fmt)', () => {
  it('reads JSON, YAML, text/plain as JSON, and form bodies with repeated keys', () => {
    expect(unserializeBody('application/json', '[{"client":"local"}]')).toEqual([{ client: 'local' }]);
    expect(unserializeBody('application/x-yaml', 'username: apiuser\neauth: file')).toEqual({ username: 'apiuser', eauth: 'file' });
    expect(unserializeBody('text/plain;charset=UTF-8', '{"fun":"test.ping"}')).toEqual({ fun: 'test.ping' });
    expect(unserializeBody('text/plain', 'not json')).toBe('not json');
    expect(unserializeBody('application/x-www-form-urlencoded', 'client=local&tgt=*&fun=test.echo&arg=hello%20world')).toEqual({
      client: 'local',
      tgt: '*',
      fun: 'test.echo',
      arg: ['hello world'],
    });
    expect(unserializeBody('application/x-www-form-urlencoded', 'fun=test.arg&arg=1&arg=two')).toEqual({
      fun: 'test.arg',
      arg: [1, 'two'],
    });
    expect(unserializeBody('application/json', '')).toBeNull();
  });

  it("answers Salt's errors for bodies it cannot read", () => {
    expect(() => unserializeBody('application/json', '[{"client":"local",')).toThrow(
      expect.objectContaining({ status: 400, message: 'Invalid JSON document' }),
    );
    expect(() => unserializeBody('application/xml', '<a/>')).toThrow(
      expect.objectContaining({ status: 406, message: 'Content type not supported' }),
    );
  });

  it('makes a single chunk a one-chunk lowstate, its scalar arg a list; anything else is refused clearly', () => {
    expect(toLowstate({ fun: 'test.echo', arg: 'x' })).toEqual([{ fun: 'test.echo', arg: ['x'] }]);
    expect(chunksOf(toLowstate([{ fun: 'a' }, { fun: 'b' }]))).toHaveLength(2);
    expect(() => chunksOf('text')).toThrow(expect.objectContaining({ status: 400, message: 'Lowstates must be a list' }));
    expect(() => chunksOf([1])).toThrow(expect.objectContaining({ status: 400 }));
  });

  it("renders CherryPy's error page byte for byte", () => {
    const ex = readExchange('04-login-json-bad-password');
    expect(errorPage(401, 'Could not authenticate using provided credentials')).toBe(ex.responseBody);
    const notFound = readExchange('97-not-found');
    expect(errorPage(404, "The path '/nosuchpath' was not found.")).toBe(notFound.responseBody);
  });
});
