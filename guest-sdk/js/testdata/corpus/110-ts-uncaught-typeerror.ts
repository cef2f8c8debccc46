interface Profile {
  city: string;
}
interface User {
  id: number;
  name: string;
  profile?: Profile;
}

const users: User[] = await tools.users({ n: 3 });
const cities: string[] = users.map((u: User) => u.profile!.city);
return cities;
