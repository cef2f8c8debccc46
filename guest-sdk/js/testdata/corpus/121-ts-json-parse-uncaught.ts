interface Config { retries: number; endpoints: string[] }
const file: { name: string; base64: string } = await tools.file({ name: "hello.txt" });
const text: string = atob(file.base64);
const config: Config = JSON.parse(text) as Config;
return config.retries;
