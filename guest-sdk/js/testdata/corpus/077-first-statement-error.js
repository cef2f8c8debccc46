const config = settings.reportConfig;
const users = await tools.users({ n: 1 });
return { config, users };
